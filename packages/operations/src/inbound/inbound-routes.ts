// The inbound routes of an account, and the route a received recipient matches.
export {
  createInboundRoute,
  deleteInboundRoute,
  findInboundRoute,
  listInboundRoutes,
  matchInboundRoute,
  updateInboundRoute,
  type InboundRoute,
  type RoutedRecipient,
} from '@mailer/db';
