#!/usr/bin/env python3
"""A static file server for the web app on 127.0.0.1 (standard library only), with the MIME
types modules and wasm need, and HTTP Range requests (`bytes=A-B`, `bytes=A-`, `bytes=-N`: 206 with
Content-Range; 416 past the end), so `index.html?db=FILE.vis.db` reads a database lazily.
Usage: static_server.py DIR [PORT]   (PORT 0 = any free port; the chosen port is printed as
`serving http://127.0.0.1:PORT/`)."""
import functools
import http.server
import os
import re
import shutil
import sys

TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json",
         ".css": "text/css", ".html": "text/html", ".map": "application/json", ".db": "application/octet-stream"}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def log_message(self, fmt, *args):  # quiet
        pass

    def end_headers(self):
        self.send_header("Accept-Ranges", "bytes")
        super().end_headers()

    def send_head(self):
        spec = self.headers.get("Range")
        path = self.translate_path(self.path)
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", spec.strip()) if spec else None
        if not m or not os.path.isfile(path) or (not m.group(1) and not m.group(2)):
            return super().send_head()
        size = os.path.getsize(path)
        if m.group(1):
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        else:
            start, end = max(0, size - int(m.group(2))), size - 1
        if start >= size or end < start:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        # A part of a database read once by the page's lazy reader: not worth a browser cache
        # entry (a headless or private profile keeps its HTTP cache in memory).
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self._range_left = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        left = getattr(self, "_range_left", None)
        if left is None:
            return shutil.copyfileobj(source, outputfile)
        self._range_left = None
        while left > 0:
            chunk = source.read(min(left, 1 << 20))
            if not chunk:
                break
            outputfile.write(chunk)
            left -= len(chunk)


def main():
    root = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 8080
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=root))
    print(f"serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
