"""Schedule transformations.  Each module holds one transformation: a pure
function from a schedule tree to a new one, and the legality check beside it."""
