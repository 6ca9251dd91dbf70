#!/usr/bin/env python3
"""Unit check of scripts/validate.py's comparison: the differences it prints are median against
median, as its docstring and table caption say (they once paired lowest run with lowest and
highest with highest). Run: python3 scripts/validate_test.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402


def row(ours, theirs, tool="heaptrack"):
    """A validation row from the runs of each side, as main() builds it."""
    import statistics
    return {
        "strategy": "data", "render": "full",
        "ours_heap_peak_bytes": statistics.median(ours),
        "ours_heap_peak_min_bytes": min(ours), "ours_heap_peak_max_bytes": max(ours),
        f"{tool}_heap_peak_bytes": statistics.median(theirs),
        f"{tool}_heap_peak_min_bytes": min(theirs), f"{tool}_heap_peak_max_bytes": max(theirs),
    }


class DifferencesTests(unittest.TestCase):
    def test_compares_medians(self):
        # Medians 110 and 100: +10 %. Lowest-to-lowest would say +0 %, highest-to-highest +50 %.
        self.assertEqual(validate.differences(row([100, 110, 150], [100, 100, 100]), "heaptrack"), "+10.00%")

    def test_one_figure_whatever_the_ranges(self):
        self.assertEqual(validate.differences(row([99, 100, 101], [100, 100, 100], "massif"), "massif"), "+0.00%")

    def test_caption_says_medians(self):
        rows = [{**row([100, 110, 150], [100, 100, 100]), **row([100, 110, 150], [100, 100, 100], "massif"),
                 "ours_rss_peak_bytes": 1e8, "time_v_max_rss_bytes": 1e8}]
        table = validate.markdown(rows, 3)
        self.assertIn("our median with the tool's median", table)
        self.assertNotIn("lowest run", table)
        self.assertIn("| +10.00% |", table)


if __name__ == "__main__":
    unittest.main()
