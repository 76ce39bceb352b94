#!/usr/bin/env bash
# Make sure Debian's chromium and chromium-driver are installed for the browser test.
# Installs them with apt-get where we can (root); otherwise says what is missing.
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium and chromium-driver for the browser test ..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/tmp/ensure_browser.log 2>&1 \
    || { echo "could not install chromium (see /tmp/ensure_browser.log)"; exit 1; }
else
  echo "NOTE: the browser test will be skipped: it needs chromium and chromedriver" >&2
  echo "      (as root: apt-get install chromium chromium-driver)" >&2
fi
