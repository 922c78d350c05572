"""The fast cases of bench/load.py: concurrent clients, and kill -9 of the server mid-record then forget."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from load import case_clients, case_kill
from test_mcp import isolated


def test_concurrent_clients_get_no_error_and_every_id_once(tmp_path: Path) -> None:
    result = case_clients(tmp_path / "root", isolated(), clients=6, batches=2)
    assert result["errors"] == 0, result["first_error"]
    assert result["every_id_once"] and result["recall_p50_ms"] > 0


def test_kill_9_of_the_server_mid_record_then_every_record_succeeds_and_forget_leaves_nothing(tmp_path: Path) -> None:
    result = case_kill(tmp_path / "root", isolated(), kills=3)
    assert result["records_failed_after_restart"] == 0, result["first_failure"]
    assert result["last_record_in_log"] and result["every_id_once"]
    assert result["forget_rc"] == 0, result["forget_error"]
    assert result["files_with_text_after_forget"] == 0, result["leftover"]
