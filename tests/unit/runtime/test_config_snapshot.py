from connect_worker.runtime.herder import TargetState
from connect_worker.storage.configs import ConfigSnapshot


def test_records_apply_like_connects_config_topic() -> None:
    s = ConfigSnapshot()
    s.apply("connector-x", {"properties": {"connector.class": "C", "name": "x"}})
    s.apply("task-x-0", {"properties": {"a": "0"}})
    s.apply("task-x-1", {"properties": {"a": "1"}})
    assert "x" not in s.tasks  # task configs wait for their commit record
    s.apply("commit-x", {"tasks": 2})
    assert s.tasks["x"] == [{"a": "0"}, {"a": "1"}]
    assert s.target_state("x") is TargetState.STARTED
    s.apply("target-state-x", {"state": "PAUSED", "state.v2": "STOPPED"})
    assert s.target_state("x") is TargetState.STOPPED
    s.apply("target-state-x", {"state": "PAUSED"})  # an older worker's record
    assert s.target_state("x") is TargetState.PAUSED
    s.apply("commit-x", {"tasks": 0})
    assert s.tasks["x"] == []
    s.apply("connector-x", None)
    s.apply("target-state-x", None)
    assert s.connectors == {} and "x" not in s.tasks and s.target_state("x") is TargetState.STARTED


def test_incomplete_commit_is_ignored() -> None:
    s = ConfigSnapshot()
    s.apply("task-y-0", {"properties": {"a": "0"}})
    s.apply("commit-y", {"tasks": 2})
    assert "y" not in s.tasks
