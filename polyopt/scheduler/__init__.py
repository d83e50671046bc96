"""The automatic scheduler (cost model, loop order, fusion, tiling, time tiling,
register tiling) and the pipeline that turns a Scop into a plan."""
