"""fit.py's pieces: training sets, models, folds, calibration and the question adapter."""
