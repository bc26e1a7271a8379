"""The generated shop server with its example handlers, end to end with the official SDK.

The SDK checks each structured result against its output schema, including
the non-object outputs (`search_products` returns an array, `cancel_order` a
string), which legacy clients receive wrapped as `{"result": ...}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from mcp import ClientSession
from runtime_support.calls import run_sdk_scenario

ADDRESS = {
    "name": "Ada Lovelace",
    "street": "12 St James's Square",
    "city": "London",
    "postcode": "SW1Y 4JH",
    "country": "GB",
}


async def scenario(session: ClientSession, era: str) -> dict[str, Any]:
    def value(result: Any, *, wrapped: bool = False) -> Any:
        """The structured result; `wrapped`: a non-object output, wrapped for legacy clients."""
        assert not result.is_error, result.content
        structured = result.structured_content
        return structured["result"] if wrapped and era == "legacy" else structured

    await session.list_tools()
    kettles = await session.call_tool("search_products", {"query": "kettle"})
    every_kettle = await session.call_tool(
        "search_products", {"query": "kettle", "in_stock_only": False}
    )
    cheap = await session.call_tool(
        "search_products",
        {"query": "kettle", "in_stock_only": False, "max_price": {"amount": 40, "currency": "EUR"}},
    )
    placed = await session.call_tool(
        "place_order",
        {
            "lines": [{"sku": "KIT-0042", "quantity": 2}, {"sku": "TEA-0001"}],
            "ship_to": ADDRESS,
            "payment": {"method": "card"},
        },
    )
    order_id = placed.structured_content["id"]
    got = await session.call_tool("get_order", {"id": order_id})
    cancelled = await session.call_tool("cancel_order", {"id": order_id, "reason": "other"})
    sold_out = await session.call_tool(
        "place_order",
        {"lines": [{"sku": "KIT-0043"}], "ship_to": ADDRESS, "payment": {"method": "invoice"}},
    )
    missing = await session.call_tool("get_order", {"id": "o_999999"})
    return {
        "kettles": [p["sku"] for p in value(kettles, wrapped=True)],
        "every_kettle": [p["sku"] for p in value(every_kettle, wrapped=True)],
        "cheap": [p["sku"] for p in value(cheap, wrapped=True)],
        "placed": value(placed),
        "got": value(got),
        "cancelled": value(cancelled),
        "errors": (sold_out.is_error, missing.is_error),
    }


def run(era: str, db: Path) -> dict[str, Any]:
    return run_sdk_scenario(era, ["examples/shop_handlers.py", "--db", str(db)], scenario, ROOT)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_shop_server_searches_places_and_cancels_orders(era: str, tmp_path: Path) -> None:
    answers = run(era, tmp_path / "shop.sqlite3")
    assert answers["kettles"] == ["KIT-0042"]
    assert answers["every_kettle"] == ["KIT-0042", "KIT-0043"]
    assert answers["cheap"] == ["KIT-0042"]
    placed = answers["placed"]
    assert placed["id"] == "o_000001"
    assert placed["status"] == "paid"
    assert placed["lines"] == [
        {"sku": "KIT-0042", "quantity": 2},
        {"sku": "TEA-0001", "quantity": 1},
    ]
    assert placed["total"] == {"amount": 85.3, "currency": "EUR"}
    assert answers["got"] == placed
    assert answers["cancelled"] == ("cancelled" if era == "modern" else {"result": "cancelled"})
    assert answers["errors"] == (True, True)
