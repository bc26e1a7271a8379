import { Client } from "./memory_server/index.js";
import { connect, report } from "./connect.js";

const m = new Client(await connect(), { drift: "error" });
await report(m.sdk, {
  createEntities: () =>
    m.createEntities({
      entities: [
        { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
        { name: "Engine", entityType: "machine", observations: [] },
      ],
    }),
  createRelations: () => m.createRelations({ relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] }),
  addObservations: () => m.addObservations({ observations: [{ entityName: "Engine", contents: ["analytical"] }] }),
  searchNodes: () => m.searchNodes({ query: "analytical" }),
  openNodes: () => m.openNodes({ names: ["Ada"] }),
  deleteObservations: () => m.deleteObservations({ deletions: [{ entityName: "Ada", observations: ["wrote the first program"] }] }),
  deleteRelations: () => m.deleteRelations({ relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] }),
  deleteEntities: () => m.deleteEntities({ entityNames: ["Engine"] }),
  readGraph: () => m.readGraph(),
});
