#!/usr/bin/python3
"""report.html in a real browser (issue 33): Debian's headless Chromium opens each
report.html given from file:// with the network off, and this checks that

  - the page logs nothing to the console (no error, no blocked load) and shows no
    #report-errors box;
  - every cell of its points and claims tables is the text of the same cell of
    comparisons.csv / claims.csv beside it (the DOM after the scripts ran);
  - the metric-vs-axis charts exist, one per swept key, and their diamond marks carry
    exactly the means and interval bounds comparisons.csv gives for the metric shown;
  - the curves chart was drawn, and the attention chart when the run kept a map; every
    curve band (the page's data) lies within its metric's range;
  - an adaptive run's page (comparisons.csv or claims.csv with sequential columns)
    opens with its design's verdicts: the first verdict a reader meets (the one nearest
    the top of the rendered page) is a design verdict, bold and coloured, the table of
    them holds each question's verdict as the CSVs give it, and no fixed-n verdict is
    bold or coloured, each under a header saying it is a reference only (computed style,
    read by a probe script added to the page's copy that is opened);
  - the claims' intervals are labelled with their level, 1 − 2α/m for m claims;
  - a screenshot is not blank;
  - the file is under the stated size and nothing outside the inlined libraries names
    a URL (no src, no link, no http(s):// in what ablate writes).

    check_report_html.py [--chromium PATH] DIR...       each DIR holds a report.html
    check_report_html.py --under ROOT --expect N        every report.html under ROOT,
                                                        which must hold N of them
    check_report_html.py --self-test DIR                the checks can fail: a copy of
        DIR with one cell of comparisons.csv changed, a script error injected, a fixed-n
        verdict coloured and the design's verdicts moved below the tables must fail each
        of those checks (DIR an adaptive run's folder)
Exit status 0 when every page passes (with --self-test: when the doctored page fails);
each failure is printed with its page.
"""
import argparse
import concurrent.futures
import csv
import html.parser
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

MAX_BYTES = 4 * 1024 * 1024  # kReportHtmlMaxBytes (report_html.h), docs/reference/run-directory.md
LIBRARY_SCRIPT = re.compile(r"<script>/\* (vega|vega-lite|vega-embed) [0-9.]+ \*/.*?</script>", re.S)


class Dom(html.parser.HTMLParser):
    """The parts of the rendered page the checks read: table cells by table id, row and
    column; aria-labels of marks under each chart container; element ids."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.cells = {}  # (table id, row, col) -> text
        self.cell_attrs = {}  # (table id, row, col) -> the td's attributes
        self.headers = {}  # (table id, data-col) -> the th's text
        self.sections = []  # ids of <section> elements, in order
        self.labels = {}  # container id -> [aria-label]
        self.svgs = {}  # container id -> number of <svg>
        self._table = None
        self._row = None
        self._col = None
        self._text = None
        self._header = None
        self._containers = []  # (tag, id) of open elements with ids

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "table":
            self._table = a.get("id")
        elif tag == "tr":
            self._row = a.get("data-row")
        elif tag == "td" and self._table and self._row is not None and "data-col" in a:
            self._col = a["data-col"]
            self._text = []
            self.cell_attrs[(self._table, int(self._row), self._col)] = a
        elif tag == "th" and self._table and "data-col" in a:
            self._header = (self._table, a["data-col"])
            self._text = []
        elif tag == "section" and "id" in a:
            self.sections.append(a["id"])
        self._containers.append((tag, a.get("id")))
        for _, cid in self._containers:
            if cid and tag == "svg":
                self.svgs[cid] = self.svgs.get(cid, 0) + 1
            if cid and "aria-label" in a:
                self.labels.setdefault(cid, []).append(a["aria-label"])

    def handle_endtag(self, tag):
        if tag == "td" and self._col is not None:
            self.cells[(self._table, int(self._row), self._col)] = "".join(self._text)
            self._col = self._text = None
        if tag == "th" and self._header is not None:
            self.headers[self._header] = "".join(self._text)
            self._header = self._text = None
        while self._containers:
            t, _ = self._containers.pop()
            if t == tag:
                break

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, unfiltered."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), "unexpected PNG format"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def can_unshare_network():
    """Whether this process may make a network namespace (root, and a kernel or container
    that allows it); without one the flags below still keep Chromium off the network."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0


def chromium(binary, page, profile, extra):
    """Runs headless Chromium on file://page with no network; returns its stderr log."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
             "--virtual-time-budget=20000",
             # No network even where a namespace cannot be made: every host resolves nowhere.
             "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]
    command = [binary] + flags + extra + ["file://" + os.path.abspath(page)]
    if can_unshare_network():
        command = ["unshare", "--net"] + command  # a network namespace with no interface up
    r = subprocess.run(command, capture_output=True, timeout=180)
    return r.stdout, r.stderr.decode("utf-8", "replace")


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# Added at the end of the copy of a page that Chromium opens, after the page's own
# scripts: each table cell's computed font weight, colours (its own and its
# descendants') and top on the page, as an attribute --dump-dom carries out. A cell not
# rendered (a filtered row) has top -1.
PROBE = """<script>
(function () {
  document.body.setAttribute("data-probe-colour", getComputedStyle(document.body).color);
  for (const td of document.querySelectorAll("td[data-col]")) {
    let weight = 0;
    const colours = new Set();
    for (const e of [td, ...td.querySelectorAll("*")]) {
      const style = getComputedStyle(e);
      weight = Math.max(weight, parseInt(style.fontWeight, 10) || 400);
      colours.add(style.color);
    }
    const box = td.getBoundingClientRect();
    const top = box.width > 0 && box.height > 0 ? Math.round(box.top + window.scrollY) : -1;
    td.setAttribute("data-probe", [weight, [...colours].join("/"), top].join(";"));
  }
})();
</script>
"""
VERDICT_COLUMNS = ("design_verdict", "sequential_verdict", "verdict", "claim_verdict")
FIXED_N_COLUMNS = ("verdict", "claim_verdict")


def csv_columns(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return next(csv.reader(f), [])


def probed(attrs):
    """(font weight, set of colours, top or -1) the probe recorded for a cell."""
    weight, colours, top = attrs.get("data-probe", "0;;-1").split(";")
    return int(weight), {c for c in colours.split("/") if c}, int(top)


def question_verdicts(folder):
    """Each question's design verdict as the CSVs give it: a claim's (its line without a
    point_id, or its only line) when the file has claims, else each compared point's."""
    claims = read_csv(os.path.join(folder, "claims.csv"))
    if claims and "sequential_verdict" in claims[0]:
        by_claim = {}
        for r in claims:
            by_claim.setdefault(r["claim"], []).append(r)
        return sorted(next((r for r in rows if not r["point_id"]), rows[0])["sequential_verdict"]
                      for rows in by_claim.values())
    return sorted(r["sequential_verdict"] for r in read_csv(os.path.join(folder, "comparisons.csv"))
                  if r.get("sequential_verdict"))


def adaptive_problems(folder, dom, body_colour):
    """An adaptive run's page opens with its design's verdicts; its fixed-n verdicts are
    a plain reference."""
    if not any("sequential_verdict" in csv_columns(os.path.join(folder, name))
               for name in ("comparisons.csv", "claims.csv")):
        return []
    problems = []
    design = [(k, v) for k, v in dom.cells.items() if k[0] == "design-verdicts-table" and k[2] == "design_verdict"]
    if not design:
        problems.append("an adaptive run's page has no table of its design's verdicts (#design-verdicts-table)")
    elif sorted(v for _, v in design) != question_verdicts(folder):
        problems.append(f"the design's verdicts {sorted(v for _, v in design)} are not the CSVs' {question_verdicts(folder)}")
    met = [(probed(dom.cell_attrs[k])[2], i, k, v) for i, (k, v) in enumerate(dom.cells.items())
           if k[2] in VERDICT_COLUMNS and v and probed(dom.cell_attrs[k])[2] >= 0]
    if met:
        _, _, (table, row, column), text = min(met)
        if (table, column) != ("design-verdicts-table", "design_verdict"):
            problems.append(f"the first verdict a reader meets is #{table} row {row} {column} {text!r}, not the design's")
    for (table, row, column), text in design:
        weight, colours, _ = probed(dom.cell_attrs[(table, row, column)])
        if weight < 600 or not colours - {body_colour}:
            problems.append(f"the design's verdict {text!r} is not bold and coloured (weight {weight}, {sorted(colours)})")
    loud = []
    for (table, row, column), text in dom.cells.items():
        if column not in FIXED_N_COLUMNS or not text:
            continue
        weight, colours, _ = probed(dom.cell_attrs[(table, row, column)])
        if weight >= 600 or colours - {body_colour}:
            loud.append(f"#{table} row {row} {text!r} (weight {weight}, {sorted(colours)})")
        if "reference only" not in dom.headers.get((table, column), ""):
            problems.append(f"#{table}'s column {column} is not labelled a reference: {dom.headers.get((table, column))!r}")
    if loud:
        problems.append(f"{len(loud)} fixed-n verdict(s) bold or coloured, first {loud[0]}")
    return sorted(set(problems), key=problems.index)


def range_of(metric):
    """metric_range (experiments/config/report_spec.h) for the page's curve names."""
    if "accuracy" in metric:
        return 0, 1
    if metric in ("bleu", "chrf"):
        return 0, 100
    if metric == "smape":
        return 0, 200
    return (1 if metric == "perplexity" else 0), float("inf")


def band_problems(text):
    """Every curve band of the page's data within its metric's range."""
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    if not found:
        return ["the page carries no #report-data"]
    data = json.loads(found.group(1).replace("<\\!", "<!"))
    problems = []
    for f in data.get("figures", []):
        for name, band in (f.get("bands") or {}).items():
            low, high = range_of(name)
            outside = [x for x in band["low"] + band["high"] if x is not None and not low <= x <= high]
            if outside:
                problems.append(f"{f.get('label')}: the {name} band leaves [{low}, {high}]: {outside[0]}")
    return problems[:3]


def claims_level_problems(folder, dom_text):
    """The claims' intervals are labelled 1 − 2α/m, m the file's claims."""
    claims = read_csv(os.path.join(folder, "claims.csv"))
    if not claims:
        return []
    level = "%.4g%%" % (100 * (1 - 2 * 0.05 / len({r["claim"] for r in claims})))
    if f"its {level} interval" not in dom_text:
        return [f"the claims' intervals are not labelled {level}"]
    return []


def check_page(binary, folder):
    problems = []
    page = os.path.join(folder, "report.html")
    text = open(page, encoding="utf-8").read()
    if len(text.encode()) > MAX_BYTES:
        problems.append(f"{len(text.encode())} bytes, over the stated {MAX_BYTES}")
    own = LIBRARY_SCRIPT.sub("", text)
    if len(LIBRARY_SCRIPT.findall(text)) != 3:
        problems.append("the three inlined libraries are not all there")
    for pattern in (r"https?://", r"\bsrc\s*=", r"<link\b", r"url\("):
        if re.search(pattern, own):
            problems.append(f"names something outside the file: /{pattern}/ in what ablate wrote")

    # One launch writes both the DOM and the screenshot (the headless mode Chromium has
    # used by default since version 112): half the time of two launches, and the same
    # DOM byte for byte (measured with Debian's Chromium 156, 2026-12-06).
    with tempfile.TemporaryDirectory() as profile:
        shot = os.path.join(profile, "shot.png")
        opened = os.path.join(profile, "report.html")  # the page and the probe after it
        head, end, tail = text.rpartition("</body>")
        with open(opened, "w", encoding="utf-8") as f:
            f.write(head + PROBE + end + tail)
        dom_text, log = chromium(binary, opened, profile,
                                 ["--window-size=1280,2400", "--screenshot=" + shot, "--dump-dom"])
        pixels = png_pixels(shot) if os.path.exists(shot) else None
    for line in log.splitlines():
        if "CONSOLE" in line and "file://" in line:
            problems.append("console: " + line.split("CONSOLE", 1)[1][:300])

    dom = Dom()
    dom_str = dom_text.decode("utf-8", "replace")
    dom.feed(dom_str)
    colour = re.search(r'<body[^>]*data-probe-colour="([^"]*)"', dom_str)
    problems += adaptive_problems(folder, dom, colour.group(1) if colour else None)
    problems += claims_level_problems(folder, dom_str)
    problems += band_problems(text)
    if "report-errors" in dom.ids:
        problems.append("the page shows #report-errors")
    for table, name in (("comparisons-table", "comparisons.csv"), ("claims-table", "claims.csv")):
        rows = read_csv(os.path.join(folder, name))
        shown = {(r, c): v for (t, r, c), v in dom.cells.items() if t == table}
        if rows and not shown:
            problems.append(f"{name} has rows and the page no #{table}")
        for (r, c), v in shown.items():
            if r >= len(rows) or rows[r].get(c) != v:
                problems.append(f"#{table} row {r} {c}: page {v!r}, {name} {rows[r].get(c) if r < len(rows) else None!r}")
        if rows and len({r for r, _ in shown}) != len(rows):
            problems.append(f"#{table} shows {len({r for r, _ in shown})} of {name}'s {len(rows)} rows")

    # The charts of metric vs axis: their means and intervals are comparisons.csv's.
    comparisons = read_csv(os.path.join(folder, "comparisons.csv"))
    primary = comparisons[0]["metric"] if comparisons else None
    expected = sorted((float(r["mean"]), float(r["ci_low"] or r["mean"]), float(r["ci_high"] or r["mean"]))
                      for r in comparisons if r["metric"] == primary and r["mean"])
    marks = []
    for label in dom.labels.get("by-axis-charts", []):
        fields = dict(p.split(": ", 1) for p in label.split("; ") if ": " in p)
        if "mean" in fields and "ci_low" in fields:
            marks.append((float(fields["mean"]), float(fields["ci_low"] or fields["mean"]),
                          float(fields["ci_high"] or fields["mean"])))
    if comparisons and not marks:
        problems.append("the metric-vs-axis charts have no marks of means")
    elif comparisons:
        per_chart = len(expected)
        if len(marks) % per_chart or sorted(set(marks)) != sorted(set(expected)):
            problems.append(f"metric-vs-axis marks {sorted(set(marks))[:4]}... are not comparisons.csv's {expected[:4]}...")
    if '"seeds":[{' in text and not dom.svgs.get("curves-chart"):
        problems.append("the run kept curves and none were drawn")
    if '"attention":{' in text and not dom.svgs.get("attention-chart"):
        problems.append("the run kept an attention map and none was drawn")

    if pixels is None:
        problems.append("no screenshot")
    else:
        width, height, channels, rows = pixels
        colours, inked = set(), 0
        for row in rows[::4]:
            for x in range(0, width * channels, channels * 4):
                px = row[x:x + 3]
                colours.add(px)
                inked += px != b"\xff\xff\xff"
        if len(colours) < 20 or inked < 0.02 * (height // 4) * (width // 4):
            problems.append(f"the screenshot looks blank ({len(colours)} colours, {inked} inked samples)")
    return problems


def self_test(binary, folder):
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, os.path.basename(os.path.normpath(folder)))
        shutil.copytree(folder, copy)
        path = os.path.join(copy, "comparisons.csv")
        rows = open(path).read().split("\n")
        cells = rows[1].split(",")
        mean = rows[0].split(",").index("mean")
        cells[mean] = cells[mean] + "1"
        rows[1] = ",".join(cells)
        open(path, "w").write("\n".join(rows))
        page = os.path.join(copy, "report.html")
        text = open(page, encoding="utf-8").read()
        # The error at the end of the page's script, after all it does at load.
        marker = "  drawDiffers();\n})();"
        assert text.count(marker) == 1, "the page's script changed: update the self-test's marker"
        text = text.replace(marker, "  drawDiffers();\n  undefinedFunction();\n})();")
        # A fixed-n verdict coloured, and the design's verdicts moved below the tables (a
        # page made before either existed fails both checks as it is).
        text = text.replace('<td data-col="verdict" class="reference">',
                            '<td data-col="verdict" class="verdict-worse">', 1)
        design = re.search(r'<section id="verdicts">.*?</section>\n', text, re.S)
        if design:
            text = text.replace(design.group(0), "").replace("</main>", design.group(0) + "</main>", 1)
        open(page, "w", encoding="utf-8").write(text)
        problems = check_page(binary, copy)
    wanted = {"#comparisons-table row 0 mean": False, "console:": False,
              "the first verdict a reader meets": False, "fixed-n verdict(s) bold or coloured": False}
    for p in problems:
        for w in wanted:
            wanted[w] |= w in p
    for w, seen in wanted.items():
        print(("ok   " if seen else "FAIL ") + f"a doctored page fails with '... {w} ...'")
    return 0 if all(wanted.values()) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--under")
    parser.add_argument("--expect", type=int)
    parser.add_argument("--self-test")
    parser.add_argument("folders", nargs="*")
    args = parser.parse_args()
    if not os.path.exists(args.chromium):
        print(f"{args.chromium}: not found (Debian's chromium; scripts/install-deps.sh test installs it)")
        return 1
    if args.self_test:
        return self_test(args.chromium, args.self_test)
    if args.under:
        args.folders += sorted(d for d, _, files in os.walk(args.under) if "report.html" in files)
        if args.expect is not None and len(args.folders) != args.expect:
            print(f"{len(args.folders)} report.html files under {args.under}, expected {args.expect}")
            return 1
    if not args.folders:
        parser.error("no folder to check")
    failed = 0
    # Two pages at a time: each Chromium keeps about one core busy.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda f: check_page(args.chromium, f), args.folders))
    for folder, problems in zip(args.folders, results):
        print(("FAIL " if problems else "ok   ") + folder)
        for p in problems:
            print("     " + p)
        failed += bool(problems)
    print(f"{len(args.folders) - failed} of {len(args.folders)} pages passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
