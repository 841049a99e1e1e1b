import { loadConfig } from '@mailer/config';
import { migrateDatabase } from './migrate';

migrateDatabase(loadConfig().databaseUrl).then(
  () => console.log(JSON.stringify({ level: 'info', message: 'migrations applied' })),
  (error: Error) => {
    console.error(JSON.stringify({ level: 'error', message: 'migration failed', error: error.message }));
    process.exit(1);
  },
);
