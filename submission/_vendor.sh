# Sourced by build.sh when this folder runs alone and _vendor/ is missing: install the pinned dependencies
# into _vendor/ once, with the python3 that will run them, from the package index pip is configured for.
# Installed into a temp folder and renamed into place, so a killed install never leaves half a _vendor/.
# Without index access this fails with one line; `make bundle` on a connected machine makes a folder that
# needs none.
if [ "$alone" = 1 ] && [ ! -d "$here/_vendor" ]; then
  echo "retriever: no _vendor/ here; installing the pinned dependencies into $here/_vendor (once)" >&2
  stage="$(mktemp -d "$here/.vendor.XXXXXX")" || { echo "retriever: cannot write to $here" >&2; exit 1; }
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
  mv -T "$stage" "$here/_vendor" 2>/dev/null || rm -rf "$stage"  # another build may have won the race
  trap - EXIT
fi
