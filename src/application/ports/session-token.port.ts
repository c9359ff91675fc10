/** Makes the ids handed to clients as `Mcp-Session-Id`. */
export interface SessionTokenGenerator {
  /** At least 128 bits from a CSPRNG, in visible ASCII (the transport allows 0x21 to 0x7E). */
  generate(): string;
}
