// `reason` is one of the enum's literals.
import type { Client } from "../shop_orders/index.js";

export async function mistake(shop: Client): Promise<void> {
  await shop.cancelOrder({ id: "o_000001", reason: "bored" }); // error: TS2322
}
