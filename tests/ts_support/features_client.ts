import { Client } from "./features/index.js";
import { connect, report } from "./connect.js";

const f = new Client(await connect(), { drift: "error" });
await report(f.sdk, {
  scalars: () => f.scalars({ text: "abc", color: null, pair: [1, "two"], point: { x: 1, y: 2 }, anything: [{ a: 1 }] }),
  scalarsInvalid: () => f.scalars({ text: "ABC" }),
  scalarsBadOutput: () => f.scalars({ text: "abc", when: "return invalid output" }),
  collections: () => f.collections({ tags: ["b"], tuple: ["x", 1, true], mixed: { name: "n", "x-extra": "e" } }),
  combinators: () => f.combinators({ shape: { kind: "circle", radius: 2 }, id: "one" }),
  combinatorsNull: () => f.combinators({ shape: { kind: "rect", width: 1, height: 2 }, expr: { op: "add", args: [1, 2] } }),
  tree: () => f.tree({ depth: 1 }),
  oddNames: () => f.oddNames({ "my-prop": "x", "with space": 1, "名前": "n" }),
  toStringTool: () => f.toStringTool(),
  pair: () => f.pair(),
  getX: () => f.getX(),
  tool3dRender: () => f.tool3dRender(),
  nothing: () => f.nothing(),
  pick: () => f.pick(),
  textOnly: () => f.textOnly({ say: "hello" }),
  crash: () => f.textOnly({ say: "crash" }),
  refuse: () => f.textOnly({ say: "refuse" }),
});
