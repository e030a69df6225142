"""Build the documentation site strictly and offline, then check every internal link of the built pages.

    python docs/build.py [--out docs/_build/html]

Sphinx runs from a fresh environment (-E: an incremental build would not repeat an unchanged page's warnings),
with warnings as errors (-W --keep-going: every warning is listed before it fails) and nitpicky cross-references
(-n). Then every href, src and srcset of every built page that points inside the site is resolved to a file within
the site, and every #fragment to an id on the target page; links to other sites are not followed (no network),
and no page may load a script, style sheet or image from one (math is rendered by the MathJax shipped in the site).
Last, every public name of every module (its `__all__`, else what it defines) must be in the API reference's
inventory (objects.inv) with a docstring of its own, and every module on one of its pages (docs/apigen.py). Exit
status 0 only if all of this passes; the time and the number of pages are printed.
"""
import argparse
import html.parser
import os
import shutil
import sys
import time
import urllib.parse

DOCS = os.path.dirname(os.path.abspath(__file__))


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.loaded = set(), [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "name" in attrs:
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("canonical",)):
                self.links.append(attrs[key])
        loads = attrs.get("src") if tag in ("script", "img", "iframe") else (
            attrs.get("href") if tag == "link" and attrs.get("rel") in ("stylesheet", "preload", "icon") else None)
        if loads:   # what the browser fetches to show the page (a script, a style sheet, an image), not a link
            self.loaded.append(loads)
        if attrs.get("srcset"):   # "a.png 1x, b.png 2x": each candidate's URL
            self.links += [candidate.split()[0] for candidate in attrs["srcset"].split(",") if candidate.strip()]


def _parse(path, cache):
    if path not in cache:
        page = _Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def site_pages(site: str) -> list:
    """The built pages; _static/ holds the theme's assets, among them Jinja macro files named .html that are no
    pages."""
    return [os.path.join(d, f) for d, _, files in os.walk(site) for f in files if f.endswith(".html")
            and os.path.relpath(d, site).split(os.sep)[0] != "_static"]


def check_links(site: str) -> list:
    """Every internal link of the built site that does not resolve within it, and every script, style sheet or
    image a page loads from another site (the site is read offline: MathJax too is shipped in it): (page, link,
    why)."""
    bad, cache = [], {}
    root = os.path.abspath(site)
    for page in site_pages(site):
        for link in _parse(page, cache).loaded:
            if urllib.parse.urlsplit(link).scheme in ("http", "https") or link.startswith("//"):
                bad.append((os.path.relpath(page, site), link, "loaded from the network: the site must read "
                                                                 "offline"))
        for link in _parse(page, cache).links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue   # another site (or mailto:): not followed offline
            target = page if not parts.path else os.path.normpath(
                os.path.join(os.path.dirname(page), urllib.parse.unquote(parts.path)))
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if os.path.commonpath([os.path.abspath(target), root]) != root:
                bad.append((os.path.relpath(page, site), link, "outside the site"))   # dead once published
            elif not os.path.exists(target):
                bad.append((os.path.relpath(page, site), link, "no such file"))
            elif parts.fragment and target.endswith(".html") and \
                    urllib.parse.unquote(parts.fragment) not in _parse(target, cache).ids:
                bad.append((os.path.relpath(page, site), link, "no such anchor"))
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(DOCS, "_build", "html"), help="output folder")
    args = parser.parse_args(argv)
    # A fresh folder, so no page of an earlier build is checked (or shipped) with this one: only a folder that an
    # earlier build wrote (it holds Sphinx's .buildinfo) is emptied; any other non-empty folder is refused.
    if os.path.isdir(args.out) and os.listdir(args.out):
        if not os.path.exists(os.path.join(args.out, ".buildinfo")):
            parser.error(f"--out {args.out!r} is a folder with files that no Sphinx build wrote: give an empty or new "
                         "folder, or an earlier build's")
        shutil.rmtree(args.out)
    from sphinx.cmd.build import build_main
    start = time.perf_counter()
    status = build_main(["-E", "-W", "--keep-going", "-n", "-q", "-b", "html", DOCS, args.out])
    seconds = time.perf_counter() - start
    if status != 0:
        print(f"docs: the Sphinx build failed (warnings are errors), {seconds:.0f} s", file=sys.stderr)
        return status
    bad = check_links(args.out)
    for page, link, why in bad:
        print(f"docs: {page}: broken internal link {link!r} ({why})", file=sys.stderr)
    sys.path.insert(0, DOCS)
    import apigen
    missing = apigen.missing_names(os.path.join(args.out, "objects.inv"))
    unassigned = apigen.unassigned_modules()
    for name in missing:
        print(f"docs: the API reference lacks the public name {name}", file=sys.stderr)
    for name in unassigned:
        print(f"docs: the module {name} belongs to no API page (docs/apigen.py PAGES)", file=sys.stderr)
    print(f"docs: {len(site_pages(args.out))} pages in {args.out}, built in {seconds:.0f} s with no warnings; "
          f"{'no' if not bad else len(bad)} broken internal links; "
          f"{'every' if not missing else len(missing)} public name{'' if not missing else 's'} "
          f"{'documented' if not missing else 'undocumented'}"
          f"{'' if not unassigned else f'; {len(unassigned)} modules on no API page'}")
    return 1 if bad or missing or unassigned else 0


if __name__ == "__main__":
    sys.exit(main())
