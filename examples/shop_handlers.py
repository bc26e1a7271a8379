"""Real handlers for the shop server (`specs/shop`): a small catalogue, orders in SQLite.

They implement the generated interface `generated/shop_orders/server.py`:

    python examples/shop_handlers.py --db shop.sqlite3       # stdio, both MCP eras

Handlers may return plain data instead of the output models: the runtime
checks it against the output schema either way.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "generated"))

from shop_orders.models import (
    CancelOrderInput,
    GetOrderInput,
    Money,
    PlaceOrderInput,
    SearchProductsInput,
)
from shop_orders.server import Handlers, ToolError, serve

CATALOGUE: tuple[dict[str, Any], ...] = (
    {"sku": "KIT-0042", "name": "Steel kettle", "price": 39.9, "in_stock": True},
    {"sku": "KIT-0043", "name": "Glass kettle", "price": 49.0, "in_stock": False},
    {"sku": "TEA-0001", "name": "Green tea, 100 g", "price": 5.5, "in_stock": True},
    {"sku": "MUG-0007", "name": "Stoneware mug", "price": 8.0, "in_stock": True},
)
CURRENCY = "EUR"
SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    id    TEXT UNIQUE,
    order_json TEXT NOT NULL
);
"""


class ShopHandlers(Handlers):
    """The shop tools; orders live in one SQLite database shared under a lock."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()
        self._products = {p["sku"]: p for p in CATALOGUE}

    def search_products(self, args: SearchProductsInput) -> list[dict[str, Any]]:
        words = args.query.lower().split()
        limit = args.max_price if isinstance(args.max_price, Money) else None
        found = []
        for product in CATALOGUE:
            if not all(word in product["name"].lower() for word in words):
                continue
            if args.in_stock_only and not product["in_stock"]:
                continue
            if limit is not None and (
                limit.currency != CURRENCY or product["price"] > limit.amount
            ):
                continue
            found.append({**product, "price": _money(product["price"])})
        return found

    def place_order(self, args: PlaceOrderInput) -> dict[str, Any]:
        lines = []
        total = 0.0
        for line in args.lines:
            product = self._products.get(line.sku)
            if product is None:
                raise ToolError(f"Unknown product {line.sku}; search_products finds SKUs.")
            if not product["in_stock"]:
                raise ToolError(f"{product['name']} ({line.sku}) is sold out.")
            lines.append({"sku": line.sku, "quantity": line.quantity})
            total += product["price"] * line.quantity
        payment = args.payment
        if payment.method == "voucher" and not isinstance(payment.voucher_code, str):
            raise ToolError("Paying by voucher needs a voucher_code.")
        order: dict[str, Any] = {
            "id": "",
            "status": "paid" if payment.method == "card" else "pending",
            "lines": lines,
            "total": _money(total),
            "ship_to": args.ship_to.model_dump(mode="json"),
            "note": args.note if isinstance(args.note, str) else None,
        }
        with self._lock:
            cursor = self._db.execute("INSERT INTO orders (order_json) VALUES ('{}')")
            order["id"] = f"o_{cursor.lastrowid:06d}"
            self._db.execute(
                "UPDATE orders SET id = ?, order_json = ? WHERE seq = ?",
                (order["id"], json.dumps(order), cursor.lastrowid),
            )
        return order

    def get_order(self, args: GetOrderInput) -> dict[str, Any]:
        return self._order(args.id)

    def cancel_order(self, args: CancelOrderInput) -> str:
        with self._lock:
            order = self._order(args.id, locked=True)
            if order["status"] == "shipped":
                return "already_shipped"
            order["status"] = "cancelled"
            self._db.execute(
                "UPDATE orders SET order_json = ? WHERE id = ?", (json.dumps(order), args.id)
            )
        return "cancelled"

    def _order(self, order_id: str, *, locked: bool = False) -> dict[str, Any]:
        if not locked:
            with self._lock:
                return self._order(order_id, locked=True)
        row = self._db.execute("SELECT order_json FROM orders WHERE id = ?", (order_id,)).fetchone()
        if row is None:
            raise ToolError(f"There is no order {order_id}.")
        order: dict[str, Any] = json.loads(row[0])
        return order


def _money(amount: float) -> dict[str, Any]:
    return {"amount": round(amount, 2), "currency": CURRENCY}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The shop MCP server (stdio).")
    parser.add_argument(
        "--db",
        default=os.environ.get("SHOP_DB", "shop.sqlite3"),
        help="SQLite database file (default: $SHOP_DB or shop.sqlite3; ':memory:' for none)",
    )
    serve(ShopHandlers(parser.parse_args(argv).db))


if __name__ == "__main__":
    main()
