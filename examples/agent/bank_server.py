"""A small bank as an MCP server, for agent evaluations (docs/guide/agents.md).

Built with the official MCP Python SDK (PyPI `mcp` 2.x, `MCPServer`). Each
session gets its own world, so every case an agent evaluation runs starts from
the same accounts; the world's state is the resource `state://world` (JSON),
which evalpage's `final_state` metric reads at the end of a case.

    python bank_server.py                     # stdio (evalpage: tools: {mcp: {command: [...]}})
    python bank_server.py --port 8765         # Streamable HTTP at http://127.0.0.1:8765/mcp
    python bank_server.py --port 8765 --json  # the same, answering JSON instead of SSE
    python bank_server.py --port 8765 --allow-origin http://127.0.0.1:8080  # a page may call it
"""

import argparse
import copy
import json

from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

START = {
    "accounts": {"A1": 950, "B2": 40, "LANDLORD": 0, "SAVINGS": 200},
    "cards": {"4471": "active", "5120": "active"},
    "transfers": [],
}

STATE_URI = "state://world"
worlds: dict[str, dict] = {}


def world(ctx: Context) -> dict:
    """The calling session's world (one process per session over stdio)."""
    headers = ctx.headers or {}
    key = headers.get("mcp-session-id", "stdio")
    if key not in worlds:
        worlds[key] = copy.deepcopy(START)
    return worlds[key]


class Bank(MCPServer):
    """Reads `state://world` per session (the SDK gives a static resource no
    session, so the read is answered here)."""

    async def read_resource(self, uri, context=None):
        if str(uri) == STATE_URI and context is not None:
            text = json.dumps(world(context), sort_keys=True)
            return [ReadResourceContents(content=text, mime_type="application/json", meta=None)]
        return await super().read_resource(uri, context)


server = Bank("evalpage-bank")


@server.tool()
def get_balance(account: str, ctx: Context) -> str:
    """The balance of an account."""
    w = world(ctx)
    if account not in w["accounts"]:
        raise ToolError(f"no account {account}")
    return json.dumps({"balance": w["accounts"][account]})


@server.tool()
def transfer(from_account: str, to_account: str, amount: float, ctx: Context) -> str:
    """Moves money between two accounts."""
    w = world(ctx)
    for a in (from_account, to_account):
        if a not in w["accounts"]:
            raise ToolError(f"no account {a}")
    if amount <= 0:
        raise ToolError("the amount must be positive")
    if w["accounts"][from_account] < amount:
        raise ToolError(f"insufficient funds in {from_account}")
    amount = int(amount) if float(amount).is_integer() else amount
    w["accounts"][from_account] -= amount
    w["accounts"][to_account] += amount
    w["transfers"].append({"from": from_account, "to": to_account, "amount": amount})
    return json.dumps({"status": "done", "amount": amount})


@server.tool()
def freeze_card(card: str, ctx: Context) -> str:
    """Freezes a card."""
    w = world(ctx)
    if card not in w["cards"]:
        raise ToolError(f"no card {card}")
    w["cards"][card] = "frozen"
    return json.dumps({"card": card, "status": "frozen"})


@server.tool()
def list_cards(ctx: Context) -> str:
    """The cards and their status."""
    return json.dumps(world(ctx)["cards"])


@server.resource(STATE_URI, mime_type="application/json")
def state() -> str:
    """The session's world: accounts, cards, transfers (listed here; read per session above)."""
    return json.dumps(START, sort_keys=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, help="serve Streamable HTTP on 127.0.0.1:PORT (else stdio)")
    p.add_argument("--json", action="store_true", help="answer JSON instead of server-sent events")
    p.add_argument("--allow-origin", help="a page origin allowed to call the server (CORS)")
    a = p.parse_args()
    if a.port is None:
        server.run("stdio")
    elif a.allow_origin is None:
        server.run("streamable-http", host="127.0.0.1", port=a.port, json_response=a.json)
    else:
        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings
        from starlette.middleware.cors import CORSMiddleware

        security = TransportSecuritySettings(
            allowed_hosts=["127.0.0.1:*", "localhost:*"],
            allowed_origins=[a.allow_origin],
        )
        app = server.streamable_http_app(json_response=a.json, transport_security=security)
        app = CORSMiddleware(
            app,
            allow_origins=[a.allow_origin],
            allow_methods=["POST", "GET", "DELETE"],
            allow_headers=["content-type", "accept", "mcp-session-id", "mcp-protocol-version"],
            expose_headers=["mcp-session-id"],
        )
        uvicorn.run(app, host="127.0.0.1", port=a.port, log_level="warning")
