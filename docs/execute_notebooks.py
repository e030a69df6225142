"""Execute the notebooks and keep their outputs, which the documentation renders as tutorials (and Colab and
GitHub show before anything runs).

    python docs/execute_notebooks.py [NAME.ipynb ...] [--quick] [--timeout SECONDS]

Each notebook runs top to bottom in its own folder, in its full setting (``--quick``: the tests' quick setting,
JAXBANDIT_QUICK=1), and is written back with its outputs and, in its metadata, what produced them: the jaxbandit
version, the setting, the seconds it took and a hash of its code (`code_hash`). tests/test_docs.py checks that
every notebook's outputs come from its current code, so a changed cell without a re-execution fails the tests.
The install cell's output (a local path) is not kept, nor are execution time stamps, nor the progress bars'
lines (one per update where no widgets are installed).
"""
import argparse
import glob
import hashlib
import os
import re
import sys
import time

NOTEBOOKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "notebooks")


def code_hash(nb) -> str:
    """SHA-256 of the code cells' sources after the install cell (which the install-cell sync rewrites)."""
    cells = [c for c in nb.cells if c.cell_type == "code"][1:]
    return hashlib.sha256("\n\0".join(c.source for c in cells).encode()).hexdigest()


# A progress bar's text (tqdm without widgets redraws it with \r, and a warning may start on the bar's line); and
# tqdm's own notices that it fell back to text
_BAR = re.compile(r"[^\r\n|]*\d+%\|[^|\n]*\|[^\r\n\[]*\[[^\]\r\n]*\]")
_NOTICE = re.compile(r"^.*(TqdmWarning: IProgress not found|from \.autonotebook import tqdm).*$")


def clean_outputs(nb) -> None:
    """Drop the progress bars from stderr (the rendered page would show every update of every bar) and keep every
    other character, warnings included, even one written on a bar's line."""
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        kept = []
        for out in cell.outputs:
            if out.output_type == "stream" and out.name == "stderr":
                lines = []
                for line in out.text.split("\n"):
                    rest = _BAR.sub("", line).replace("\r", "")
                    if _NOTICE.match(rest) or (not rest.strip() and rest != line):
                        continue   # tqdm's notice, or a line that held bars only
                    lines.append(rest)
                text = "\n".join(lines)
                if not text.strip():
                    continue
                out.text = text
            kept.append(out)
        cell.outputs = kept


def execute(path: str, quick: bool, timeout: int, out: str | None = None) -> float:
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    env = {"JAXBANDIT_QUICK": "1" if quick else "0"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    start = time.perf_counter()
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                       resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    seconds = time.perf_counter() - start
    clean_outputs(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    code[0].outputs, code[0].execution_count = [], None
    from jaxbandit.version import __version__
    nb.metadata["jaxbandit"] = {"version": __version__, "setting": "quick" if quick else "full",
                                "seconds": round(seconds), "code_hash": code_hash(nb)}
    nbformat.write(nb, out or path)
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook files (default: every notebook in notebooks/)")
    parser.add_argument("--quick", action="store_true", help="the quick setting (JAXBANDIT_QUICK=1)")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per cell (default 3600)")
    parser.add_argument("--out", help="a folder to write the executed notebooks to instead of in place")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(glob.glob(os.path.join(NOTEBOOKS, "*.ipynb")))
    for path in paths:
        out = os.path.join(args.out, os.path.basename(path)) if args.out else None
        seconds = execute(path, args.quick, args.timeout, out)
        print(f"{os.path.basename(path)}: {seconds:.0f} s ({'quick' if args.quick else 'full'} setting)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
