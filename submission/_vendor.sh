# Sourced by build.sh when this folder runs alone and its dependency folder ($vendor, set by _python.sh) is
# missing: install the pinned dependencies there once, with the python3 that will run them, from the
# package index pip is configured for. Installed into a temp folder beside it and renamed into place, so a
# killed install never leaves half a folder.
# Without index access this fails with one line; `make bundle` on a connected machine makes a folder that
# needs none.
if [ "$alone" = 1 ] && [ ! -d "$vendor" ]; then
  echo "retriever: no dependencies yet; installing the pinned ones into $vendor (once)" >&2
  parent="$(dirname "$vendor")"
  mkdir -p "$parent" 2>/dev/null || true
  stage="$(mktemp -d "$parent/.vendor.XXXXXX" 2>/dev/null)" ||
    { echo "retriever: cannot write to $parent; set RETRIEVER_VENDOR_DIR to a writable folder" >&2; exit 1; }
  trap 'rm -rf "$stage"' EXIT
  pip_args=(-m pip install -q --disable-pip-version-check --no-input --target "$stage")  # with .pyc: faster startup
  if ! "$py" -E -s -m pip --version >/dev/null 2>&1; then
    echo "retriever: $py has no pip; run 'make bundle' on a machine with one and copy submission/" >&2
    exit 1
  fi
  if ! "$py" -E -s "${pip_args[@]}" -r "$here/requirements.txt" >"$stage.log" 2>&1 ||
     ! "$py" -E -s "${pip_args[@]}" --no-deps -r "$here/requirements-nodeps.txt" >>"$stage.log" 2>&1; then
    echo "retriever: installing dependencies failed ($(grep -m1 -E 'ERROR|error' "$stage.log" || tail -n1 "$stage.log")); see $stage.log" >&2
    exit 1
  fi
  rm -rf "$stage/bin" "$stage.log"
  mv -T "$stage" "$vendor" 2>/dev/null || rm -rf "$stage"  # another build may have won the race
  trap - EXIT
fi
