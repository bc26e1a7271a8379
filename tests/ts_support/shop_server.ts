import { registerTools, SERVER, serveStdio, ToolError, type Handlers, type Order } from "./shop_orders/index.js";
import { serve } from "./serve.js";

const orders = new Map<string, Order>();

const handlers: Handlers = {
  searchProducts({ query, in_stock_only = true }) {
    const found = [{ sku: "KIT-0042", name: "Steel kettle", price: { amount: 39.9, currency: "EUR" as const }, in_stock: true }];
    return found.filter((p) => p.name.toLowerCase().includes(query.toLowerCase()) && (p.in_stock || !in_stock_only));
  },
  placeOrder({ lines, ship_to, note = null }) {
    const id = `o_${String(orders.size + 1).padStart(6, "0")}`;
    const quantity = lines.reduce((sum, line) => sum + (line.quantity ?? 1), 0);
    const order: Order = {
      id,
      status: "pending",
      lines: lines.map((line) => ({ sku: line.sku, quantity: line.quantity ?? 1 })),
      total: { amount: Math.round(quantity * 3990) / 100, currency: "EUR" },
      ship_to,
      note,
    };
    orders.set(id, order);
    return order;
  },
  getOrder({ id }) {
    const order = orders.get(id);
    if (order === undefined) throw new ToolError(`no order ${id}`);
    return order;
  },
  cancelOrder({ id }) {
    const order = orders.get(id);
    if (order?.status === "shipped") return "already_shipped";
    if (order !== undefined) order.status = "cancelled";
    return "cancelled";
  },
};

serve(SERVER, registerTools, handlers, serveStdio);
