#!/usr/bin/env python3
"""Checks the built course site in a real browser: Debian's chromium, driven
headless by Playwright, over a local web server.

From the home page it follows every link that stays on the site, and on
every page it reached it checks that:
  - the page and everything it asked for (styles, scripts, pictures, the
    search index) loaded, and no script failed;
  - every picture was drawn (decoded, with a size);
  - every link to a place in a page finds that place (an element with that id);
  - every hint is folded at first and opens on a click.
Links that leave the site are counted, not followed (the check runs offline).
It also saves a picture of lesson01's page with its first hint open.

usage: check_site.py SITE_DIR [--browser PATH] [--screenshot FILE]
"""
import argparse
import functools
import http.server
import os
import shutil
import sys
import threading
from collections import deque
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

from playwright.sync_api import sync_playwright

MAX_PAGES = 500


def find_browser(given):
    for candidate in (given, os.environ.get("CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site_dir):
    handler = functools.partial(QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class SiteCheck:
    def __init__(self, page, root):
        self.page, self.root = page, root
        self.problems, self.visited, self.external = [], [], set()
        self.images = self.anchors = self.hints = 0
        self.current = None
        page.on("response", self.on_response)
        page.on("requestfailed", lambda r: self.problem(f"{r.url} did not load ({r.failure})"))
        page.on("pageerror", lambda e: self.problem(f"a script failed: {e}"))
        page.on("console", lambda m: m.type == "error" and self.problem(f"console error: {m.text}"))

    def problem(self, what):
        self.problems.append(f"{self.current or self.root}: {what}")

    def on_response(self, response):
        if response.status >= 400:
            self.problem(f"{response.url} answered {response.status}")

    def on_site(self, url):
        return url.startswith(self.root)

    def visit(self, url):
        # "networkidle": every request the page starts (the search index's
        # web worker comes late) finishes before the check moves on, so no
        # load is cut short by the next page and reported as failed.
        self.current = url
        response = self.page.goto(url, wait_until="networkidle")
        if response is None or response.status != 200:
            self.problem(f"the page answered {response.status if response else 'nothing'}")
            return []
        self.visited.append(url)
        self.check_images()
        self.check_hints()
        links = self.page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")
        for link in links:
            target, anchor = urldefrag(link)
            if not urlparse(link).scheme.startswith("http"):
                continue
            if not self.on_site(link):
                self.external.add(link)
            elif anchor and target == urldefrag(url)[0]:
                self.anchors += 1
                if not self.page.evaluate("id => document.getElementById(id) !== null", anchor):
                    self.problem(f"the link #{anchor} finds nothing in this page")
        return [urldefrag(link)[0] for link in links if self.on_site(link)]

    def check_images(self):
        images = self.page.eval_on_selector_all(
            "img", "els => els.map(i => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0}))")
        for image in images:
            self.images += 1
            if not image["ok"]:
                self.problem(f"the picture {image['src']} was not drawn")

    def check_hints(self):
        hints = self.page.locator("details.tip")
        for i in range(hints.count()):
            hint = hints.nth(i)
            self.hints += 1
            if hint.get_attribute("open") is not None:
                self.problem(f"hint {i + 1} is open before it is clicked")
                continue
            hint.locator("summary").click()
            if hint.get_attribute("open") is None or not hint.locator("p").first.is_visible():
                self.problem(f"hint {i + 1} did not open on a click")

    def anchors_elsewhere(self, links_by_page):
        """Links to a place in another page: that page must have the id."""
        for url, anchor in links_by_page:
            self.current = url
            self.page.goto(url, wait_until="networkidle")
            if not self.page.evaluate("id => document.getElementById(id) !== null", anchor):
                self.problem(f"no place #{anchor} in this page, which a link points to")
            self.anchors += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site_dir")
    parser.add_argument("--browser", help="the chromium to drive (default: chromium on PATH, or $CHROMIUM)")
    parser.add_argument("--screenshot", help="where to save lesson01's page with a hint open (PNG)")
    args = parser.parse_args()
    site_dir = Path(args.site_dir)
    if not (site_dir / "index.html").is_file():
        print(f"check_site: no {site_dir}/index.html: build the site first (grader/site/build_site.py)")
        return 1
    browser_path = find_browser(args.browser)
    if browser_path is None:
        print("check_site: no chromium found: apt-get install chromium, or give --browser")
        return 1

    server, root = serve(site_dir)
    with sync_playwright() as playwright:
        # The browser's own sandbox needs user namespaces a root shell or a
        # container may not have; the pages are the course's own files.
        browser = playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        check = SiteCheck(page, root)
        queue, seen, cross_anchors = deque([root]), {root}, set()
        while queue and len(check.visited) < MAX_PAGES:
            url = queue.popleft()
            for link in check.visit(url):
                if link not in seen:
                    seen.add(link)
                    queue.append(link)
            for link in page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"):
                target, anchor = urldefrag(link)
                if anchor and check.on_site(link) and target != urldefrag(url)[0]:
                    cross_anchors.add((target, anchor))
        check.anchors_elsewhere(sorted(cross_anchors))

        lesson01 = next((u for u in check.visited if "/lessons/01_" in u), None)
        if args.screenshot and lesson01:
            check.current = lesson01
            page.goto(lesson01, wait_until="networkidle")
            hint = page.locator("details.tip").first
            if hint.count():
                hint.locator("summary").click()
                hint.scroll_into_view_if_needed()
            page.screenshot(path=args.screenshot)
        version = browser.version
        browser.close()
    server.shutdown()

    pages_on_disk = {p.relative_to(site_dir).as_posix() for p in site_dir.rglob("index.html")}
    reached = {urlparse(u).path.lstrip("/") + ("index.html" if u.endswith("/") else "") for u in check.visited}
    for missing in sorted(pages_on_disk - reached):
        check.problems.append(f"{missing}: no link on the site leads to this page")
    if not any("/lessons/" in u for u in check.visited):
        check.problems.append("no lesson page was reached from the home page")
    if check.hints == 0:
        check.problems.append("no hint found on any page")

    for problem in check.problems:
        print("FAIL:", problem)
    print(f"check_site: chromium {version}: {len(check.visited)} pages, {check.images} pictures, "
          f"{check.anchors} links to places in pages, {check.hints} hints opened, "
          f"{len(check.external)} links off the site (not followed): "
          + ("all fine" if not check.problems else f"{len(check.problems)} problems"))
    return 1 if check.problems else 0


if __name__ == "__main__":
    sys.exit(main())
