"""Search time: question -> channel evidence -> fusion -> group and plan models -> budgeted selection."""
