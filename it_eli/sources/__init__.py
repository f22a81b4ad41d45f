"""One module or package per upstream (Normattiva, SentenzeWeb, Giustizia Amministrativa, the
Court's open data) and the one HTTP layer; parsing is pure, I/O thin. Imports `law`, `runtime`."""
