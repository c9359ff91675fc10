/**
 * Whether an upstream MCP server's URL names a host keygate may contact at
 * all (public unicast, or admitted by MCP_UPSTREAM_ALLOWLIST). Asked when a
 * server is registered over REST, so its owner hears of a refused address at
 * once; every connection is still checked again, since DNS answers change.
 */
export interface UpstreamAddressCheck {
  /** Throws UpstreamRefusal when the host is refused. A lookup that fails or does not answer in time passes. */
  check(url: string): Promise<void>;
}
