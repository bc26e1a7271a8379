// Serve a generated module's tools from Node over stdio, both protocol eras, through the module's
// serveStdio (the SDK's, on a transport that answers malformed lines and batches): one McpServer
// per connection, from this factory.
import { McpServer } from "@modelcontextprotocol/server";

interface Identity {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
}

export function serve<H>(
  identity: Identity,
  register: (server: McpServer, handlers: H) => unknown,
  handlers: H,
  serveStdio: (factory: () => McpServer) => unknown,
): void {
  serveStdio(() => {
    const options = identity.instructions === undefined ? {} : { instructions: identity.instructions };
    const server = new McpServer({ name: identity.name, version: identity.version }, options);
    register(server, handlers);
    return server;
  });
}
