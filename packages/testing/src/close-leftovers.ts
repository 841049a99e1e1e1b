/// <reference types="jest" />
import { closeLeftoverPeers } from './smtp-server';

// Runs in every test file (jest's setupFilesAfterEnv).
afterAll(closeLeftoverPeers);
