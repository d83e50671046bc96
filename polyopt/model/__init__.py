"""The program model every layer shares: affine expressions, types, names, the
frozen Scop and schedule tree, options and errors.  It imports nothing above it."""
