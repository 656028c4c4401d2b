"""The users transform as a Python proxy: aiohttp (server and client) + orjson.

    python aiohttp_proxy.py LISTEN_PORT ORIGIN_PORT

GET /users/{size} -> GET http://127.0.0.1:ORIGIN_PORT/{size}.json over one pooled, keep-alive
ClientSession; the transform is py_transform.transform (the same code as the offline figure).
"""
import os
import sys

from aiohttp import ClientSession, TCPConnector, web

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_transform import transform  # noqa: E402


def main():
    listen_port, origin_port = int(sys.argv[1]), int(sys.argv[2])
    origin = f"http://127.0.0.1:{origin_port}"

    async def start(app):
        # limit=0: no cap on pooled upstream connections (the wrk connection count bounds it)
        app["session"] = ClientSession(connector=TCPConnector(limit=0), auto_decompress=False)

    async def stop(app):
        await app["session"].close()

    async def users(request):
        size = request.match_info["size"]
        async with request.app["session"].get(f"{origin}/{size}.json") as r:
            if r.status != 200:
                return web.json_response({"error": f"upstream {r.status}"}, status=502)
            body = await r.read()
        try:
            answer, _ = transform(body)
        except ValueError as e:
            return web.json_response({"error": str(e)}, status=502)
        return web.Response(body=answer, content_type="application/json")

    app = web.Application()
    app.router.add_get("/users/{size}", users)
    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    print(f"listening on 127.0.0.1:{listen_port}", file=sys.stderr, flush=True)
    web.run_app(app, host="127.0.0.1", port=listen_port, access_log=None, print=None)


if __name__ == "__main__":
    main()
