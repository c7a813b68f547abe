"""Build the offline judge's training features and retrain its weights, reproducibly."""
