export * from './sending-status';
export * from './reputation-counts';
export * from './held-while-paused';
