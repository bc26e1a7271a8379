// `id` is required by get_order's input schema.
import type { Client } from "../shop_orders/index.js";

export async function mistake(shop: Client): Promise<void> {
  await shop.getOrder({}); // error: TS2345
}
