# Sourced by build.sh when this folder runs alone: install the pinned dependencies into its dependency
# folder ($vendor, set by _python.sh) with the python3 that will run them, from the package index pip is
# configured for. Once per set of pins: the folder records the pins it holds (`make bundle` stamps its
# folder too), so a copy of this folder with new requirements gets them on its next build. Installed into a
# temp folder beside it and renamed into place, so a killed install never leaves half a folder.
# Without index access a missing folder is one clear error (`make bundle` on a connected machine makes a
# folder that needs none); an existing folder for older pins is kept, with a warning.
pins="$(cat "$here/requirements.txt" "$here/requirements-nodeps.txt" | cksum | cut -d' ' -f1)"

# The pins marked "# optional" (ONNX Runtime: numpy runs the same encoder, slower) must not cost a build
# on a machine their wheels do not fit (an older glibc, a Python they have no wheel for): without them, the
# rest is installed and the build says so.
_install_nodeps() {
  "$py" -E -s "${pip_args[@]}" --no-deps -r "$here/requirements-nodeps.txt" && return 0
  grep -q '# optional' "$here/requirements-nodeps.txt" || return 1
  grep -v '# optional' "$here/requirements-nodeps.txt" >"$stage.req"  # also says, below, that they are left out
  "$py" -E -s "${pip_args[@]}" --no-deps -r "$stage.req"
}

_vendor_install() {
  local parent pip_args
  parent="$(dirname "$vendor")"
  mkdir -p "$parent" 2>/dev/null || true
  stage="$(mktemp -d "$parent/.vendor.XXXXXX" 2>/dev/null)" ||
    { echo "retriever: cannot write to $parent; set RETRIEVER_VENDOR_DIR to a writable folder" >&2; return 1; }
  trap 'rm -rf "$stage" "$stage.log" "$stage.req"' EXIT  # killed mid-install
  pip_args=(-m pip install -q --disable-pip-version-check --no-input --target "$stage")  # with .pyc: faster startup
  if ! "$py" -E -s -m pip --version >/dev/null 2>&1; then
    echo "retriever: $py has no pip; run 'make bundle' on a machine with one and copy submission/" >&2
    rm -rf "$stage"; trap - EXIT; return 1
  fi
  if ! "$py" -E -s "${pip_args[@]}" -r "$here/requirements.txt" >"$stage.log" 2>&1 ||
     ! _install_nodeps >>"$stage.log" 2>&1; then
    echo "retriever: installing dependencies failed ($(grep -m1 -E 'ERROR|error' "$stage.log" || tail -n1 "$stage.log")); see $stage.log" >&2
    rm -rf "$stage"; trap - EXIT; return 1
  fi
  if [ -f "$stage.req" ]; then
    echo "retriever: left out what would not install here: $(grep '# optional' "$here/requirements-nodeps.txt" | sed 's/[ ;].*//' | tr '\n' ' ')(optional; see requirements-nodeps.txt)" >&2
  fi
  rm -rf "$stage/bin" "$stage.log" "$stage.req"
  echo "$pins" >"$stage/.pins"
  if [ -d "$vendor" ]; then rm -rf "$vendor.old"; mv -T "$vendor" "$vendor.old" 2>/dev/null || true; fi
  mv -T "$stage" "$vendor" 2>/dev/null || rm -rf "$stage"  # another build may have won the race
  rm -rf "$vendor.old"
  trap - EXIT
}

if [ "$alone" = 1 ]; then
  if [ ! -d "$vendor" ]; then
    echo "retriever: no dependencies yet; installing the pinned ones into $vendor (once)" >&2
    _vendor_install || exit 1
  elif [ -w "$vendor" ] && [ "$(cat "$vendor/.pins" 2>/dev/null)" != "$pins" ]; then
    echo "retriever: $vendor holds other pins than requirements.txt; installing these" >&2
    _vendor_install || echo "retriever: keeping the dependencies already in $vendor" >&2
  fi
fi
