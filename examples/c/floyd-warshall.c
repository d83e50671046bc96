/* floyd-warshall: all-pairs shortest paths on an int matrix
 * A PolyBench/C 4.2.1-style kernel (medley/floyd-warshall); the update is a
 * ternary in a value.
 */
#include <stdio.h>

#define N 90
#define DATA_TYPE int
#define _PB_N n

static void kernel_floyd_warshall(int n, DATA_TYPE path[N][N])
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++) {
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ?
          path[i][j] : path[i][k] + path[k][j];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE path[N][N];
  long sum = 0;
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      path[i][j] = i * j % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
        path[i][j] = 999;
    }
  kernel_floyd_warshall(N, path);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += (long) path[i][j] * ((i + j) % 5 + 1);
  printf("floyd-warshall path %ld\n", sum);
  return 0;
}
