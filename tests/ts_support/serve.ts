// Serve a generated module's tools from Node over stdio, both protocol eras (the SDK's
// serveStdio: one McpServer per connection, from this factory).
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

interface Identity {
  readonly name: string;
  readonly version: string;
  readonly instructions?: string;
}

export function serve<H>(identity: Identity, register: (server: McpServer, handlers: H) => void, handlers: H): void {
  serveStdio(() => {
    const options = identity.instructions === undefined ? {} : { instructions: identity.instructions };
    const server = new McpServer({ name: identity.name, version: identity.version }, options);
    register(server, handlers);
    return server;
  });
}
