/* nussinov: RNA folding by dynamic programming (maximum base pairing)
 * A PolyBench/C 4.2.1-style kernel (medley/nussinov): a decreasing outer loop,
 * affine ifs with an else branch, char data, and min/max written as ternary macros.
 */
#include <stdio.h>

#define N 80
#define DATA_TYPE int
#define _PB_N n

/* RNA bases represented as chars, range is [0,3] */
typedef char base;

#define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)

static void kernel_nussinov(int n, base seq[N], DATA_TYPE table[N][N])
{
  int i, j, k;

#pragma scop
  for (i = _PB_N - 1; i >= 0; i--) {
    for (j = i + 1; j < _PB_N; j++) {
      if (j - 1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j-1]);
      if (i + 1 < _PB_N)
        table[i][j] = max_score(table[i][j], table[i+1][j]);

      if (j - 1 >= 0 && i + 1 < _PB_N) {
        /* don't allow adjacent elements to bond */
        if (i < j - 1)
          table[i][j] = max_score(table[i][j], table[i+1][j-1] + match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i+1][j-1]);
      }

      for (k = i + 1; k < j; k++) {
        table[i][j] = max_score(table[i][j], table[k+1][j] + table[i][k]);
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static base seq[N];
  static DATA_TYPE table[N][N];
  long sum = 0;
  int i, j;

  for (i = 0; i < N; i++)
    seq[i] = (base) ((i + 1) % 4);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      table[i][j] = 0;
  kernel_nussinov(N, seq, table);
  for (i = 0; i < N; i++)
    for (j = i; j < N; j++)
      sum += (long) table[i][j] * ((i + j) % 7 + 1);
  printf("nussinov table %ld\n", sum);
  return 0;
}
