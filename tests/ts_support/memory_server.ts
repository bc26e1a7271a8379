// The knowledge graph of @modelcontextprotocol/server-memory, in memory, behind the
// module generated from the spec set `toolgen import --server` made of the real server.
import { registerTools, SERVER, serveStdio, type Handlers, type ReadGraphOutput } from "./memory_server/index.js";
import { serve } from "./serve.js";

type Graph = ReadGraphOutput;
const graph: Graph = { entities: [], relations: [] };
const same = (a: Graph["relations"][number], b: Graph["relations"][number]) =>
  a.from === b.from && a.to === b.to && a.relationType === b.relationType;
const only = (names: Set<string>): Graph => ({
  entities: graph.entities.filter((e) => names.has(e.name)),
  relations: graph.relations.filter((r) => names.has(r.from) && names.has(r.to)),
});

const handlers: Handlers = {
  createEntities({ entities }) {
    const fresh = entities
      .filter((e) => !graph.entities.some((known) => known.name === e.name))
      .map(({ name, entityType, observations }) => ({ name, entityType, observations }));
    graph.entities.push(...fresh);
    return { entities: fresh };
  },
  createRelations({ relations }) {
    const fresh = relations
      .map(({ from, to, relationType }) => ({ from, to, relationType }))
      .filter((r) => !graph.relations.some((known) => same(known, r)));
    graph.relations.push(...fresh);
    return { relations: fresh };
  },
  addObservations({ observations }) {
    return {
      results: observations.map(({ entityName, contents }) => {
        const entity = graph.entities.find((e) => e.name === entityName);
        const added = contents.filter((c) => entity !== undefined && !entity.observations.includes(c));
        entity?.observations.push(...added);
        return { entityName, addedObservations: added };
      }),
    };
  },
  deleteEntities({ entityNames }) {
    graph.entities = graph.entities.filter((e) => !entityNames.includes(e.name));
    graph.relations = graph.relations.filter((r) => !entityNames.includes(r.from) && !entityNames.includes(r.to));
    return { success: true, message: "Entities deleted successfully" };
  },
  deleteObservations({ deletions }) {
    for (const { entityName, observations } of deletions) {
      const entity = graph.entities.find((e) => e.name === entityName);
      if (entity !== undefined) entity.observations = entity.observations.filter((o) => !observations.includes(o));
    }
    return { success: true, message: "Observations deleted successfully" };
  },
  deleteRelations({ relations }) {
    graph.relations = graph.relations.filter((r) => !relations.some((gone) => same(gone, r)));
    return { success: true, message: "Relations deleted successfully" };
  },
  readGraph: () => graph,
  searchNodes({ query }) {
    const q = query.toLowerCase();
    const hits = graph.entities.filter(
      (e) => e.name.toLowerCase().includes(q) || e.entityType.toLowerCase().includes(q) || e.observations.some((o) => o.toLowerCase().includes(q)),
    );
    return only(new Set(hits.map((e) => e.name)));
  },
  openNodes: ({ names }) => only(new Set(names)),
};

serve(SERVER, registerTools, handlers, serveStdio);
