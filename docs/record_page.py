"""Remakes docs/page.png: the page at `/` in headless Chromium, mid-game.

    make up                           # in another terminal: the service
    .venv/bin/python docs/record_page.py [--url http://127.0.0.1:8080/] [--out docs/page.png]

It needs Debian's chromium and chromium-driver (`apt-get install chromium
chromium-driver`) and the test extras (selenium). It loads a puzzle (from
magictour's top1465), pencils in every candidate, takes a hint (a pointing
elimination: its pattern, units and crossed-out marks), starts a
naive-vs-MRV watch of 10 s and takes the picture a third of the way
through; then it stops the watch (Cancel).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
PUZZLE = "........1...2.9.8..4.....7.8...9..3.9...3..642..1.6......68.5..1....53...75......"


def browser(profile: str) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                 "--window-size=1100,1180", "--hide-scrollbars"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))


def until(driver, script: str, timeout: float = 60):
    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: d.execute_script("return " + script))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080/")
    parser.add_argument("--out", default=str(ROOT / "docs/page.png"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            driver.get(f"{args.url}?puzzle={PUZZLE}")
            until(driver, "document.getElementById('puzzle-status').textContent.includes('Grade')")
            driver.find_element("id", "fill-marks").click()
            until(driver, "document.getElementById('hint-text').textContent.startsWith('Every')")
            driver.find_element("id", "hint").click()
            until(driver, "document.getElementById('hint-text').dataset.kind")
            Select(driver.find_element("id", "duration")).select_by_value("10000")
            driver.find_element("id", "watch-start").click()
            until(driver, "Number(document.getElementById('watch-mrv').dataset.seq) > 100")
            driver.save_screenshot(args.out)
            driver.find_element("id", "watch-stop").click()
        finally:
            driver.quit()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
