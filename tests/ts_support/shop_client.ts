import { Client } from "./shop_orders/index.js";
import { connect, report } from "./connect.js";

const shop = new Client(await connect(), { drift: "error" });
const address = { name: "Ada Lovelace", street: "12 St James's Square", city: "London", postcode: "SW1Y 4JH", country: "GB" };
await report(shop.sdk, {
  search: () => shop.searchProducts({ query: "kettle" }),
  place: () => shop.placeOrder({ lines: [{ sku: "KIT-0042", quantity: 2 }], ship_to: address, payment: { method: "card" } }),
  get: () => shop.getOrder({ id: "o_000001" }),
  cancel: () => shop.cancelOrder({ id: "o_000001", reason: "changed_mind" }),
  invalid: () => shop.getOrder({ id: "not-an-id" }),
});
