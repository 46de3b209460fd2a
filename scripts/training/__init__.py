"""fit.py's pieces: training sets, models, folds, calibration and the question adapter; and the usage words
usage_words.py learns before the fit (usage)."""
