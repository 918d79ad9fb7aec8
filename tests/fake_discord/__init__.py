"""Tests of the fake Discord itself (the fake lives in testbed/fake_discord/)."""
