// The account records every surface reads and provisions, as the stores keep them.
export { accountExists, createAccount, findAccountWithPlan, listAccounts, setAccountPlan, type PlanSettings, type ProvisionedAccount } from '@mailer/db';
