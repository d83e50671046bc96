"""What is true of a program: exact dependences, reductions, the timeline of a
schedule, legality of a new schedule, loop verdicts, array bounds."""
