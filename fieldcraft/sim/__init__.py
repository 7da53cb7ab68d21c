"""Simulation and measurement: many bot games, win rates, playout speed."""
