"""Research adapters: fieldcraft games in OpenSpiel (``openspiel``), PettingZoo (``pettingzoo``)
and Gymnasium (``gym``). Each module imports its framework, so import only the one you use;
the core never imports them."""
