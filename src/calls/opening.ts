/**
 * The fixed outbound opening (api-core §4): identifies the business, discloses a virtual
 * assistant, asks whether now is a good time. The inbound greeting is never used on
 * outbound calls.
 */
export const OUTBOUND_OPENING =
  "Hello, this is the virtual assistant calling on behalf of the business. I'm an automated assistant. Is now a good time to talk?";
