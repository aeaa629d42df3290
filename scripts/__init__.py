"""Developer scripts: model fetching, the local stack behind `make run`, the terminal chat."""
