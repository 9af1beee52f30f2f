"""Screenshots of the built site: the home page, two tutorials and the API reference.

``python docs/screenshots.py`` builds the site (``mkdocs build --strict``) into a temporary
folder, serves it on localhost, and writes ``docs/images/screenshot-home.png`` and
``docs/images/screenshot-tutorial.png`` (and the compare tutorial's and the API page's)
with headless Chromium (``/usr/bin/chromium``;
Debian: ``apt-get install -y chromium``). Needs the ``docs`` extra.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
SHOTS = {
    "screenshot-home.png": "",
    "screenshot-tutorial.png": "tutorials/evaluate/",
    "screenshot-compare.png": "tutorials/compare/",
    "screenshot-api.png": "reference/api/",
}


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("screenshots.py: no Chromium found; install it (Debian: apt-get install -y chromium)")


def main() -> None:
    browser = _chromium()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
            cwd=ROOT,
            check=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            port = server.server_address[1]
            for png, path in SHOTS.items():
                subprocess.run(
                    [
                        browser,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--hide-scrollbars",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--no-first-run",
                        f"--user-data-dir={tmp}/profile",
                        f"--screenshot={IMAGES / png}",
                        "--window-size=1280,900",
                        f"http://127.0.0.1:{port}/{path}",
                    ],
                    check=True,
                    capture_output=True,
                    timeout=120,
                )
                print(IMAGES / png)
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    main()
