#!/usr/bin/env python3
"""A static file server for the web app on 127.0.0.1 (standard library only), with the MIME
types modules and wasm need. Usage: static_server.py DIR [PORT]   (PORT 0 = any free port; the
chosen port is printed as `serving http://127.0.0.1:PORT/`)."""
import functools
import http.server
import sys

TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json",
         ".css": "text/css", ".html": "text/html", ".map": "application/json", ".db": "application/octet-stream"}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def log_message(self, fmt, *args):  # quiet
        pass


def main():
    root = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 8080
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=root))
    print(f"serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
