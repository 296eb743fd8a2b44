"""Training bgfast's neural net by its own self-play.

>>> from bgfast.train import TrainConfig, run_td        # doctest: +SKIP
>>> run_td(TrainConfig(games=1_000_000), "/work/train/run1")   # doctest: +SKIP

The modules: :mod:`~bgfast.train.config` (the run's settings and learning-rate
schedule), :mod:`~bgfast.train.td` (TD(lambda) self-play in the compiled core,
checkpointed and resumable), :mod:`~bgfast.train.checkpoint` (atomic checkpoint
files), :mod:`~bgfast.train.curve` (the learning curve: paired points per game
against pubeval), :mod:`~bgfast.train.supervised` (refinement: the net fit by Adam, in numpy, to
its own deeper look-ahead on its candidate plays, and to rollout labels),
:mod:`~bgfast.train.rollout_labels` (positions of varied games rolled out by the net: targets
right in absolute terms), :mod:`~bgfast.train.bench` (speed
against gnubg-nn) and :mod:`~bgfast.train.cli` (``main(argv)``, the command line).
gnubg may measure a net, never teach it: every label comes from bgfast's own play.
"""
from bgfast.train.config import TrainConfig
from bgfast.train.curve import CurvePoint, paired_ppg
from bgfast.train.td import initial_weights, run_td

__all__ = ["CurvePoint", "TrainConfig", "initial_weights", "paired_ppg", "run_td"]
