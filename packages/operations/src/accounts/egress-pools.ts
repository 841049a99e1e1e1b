// The egress pools an operator assigns to accounts, and the addresses they send from.
export { addEgressAddress, createEgressPool, egressAddressesOf, listEgressPools, setAccountEgressPool, type EgressAddress } from '@mailer/db';
