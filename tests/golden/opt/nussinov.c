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

/* polyopt: optimized scop region (lines 21-42) */
{
  (void)i; (void)j; (void)k;  /* named by the loops as written */
  for (int c0 = ((-n) + 2); c0 <= 0; c0 += 1) {
    for (int c1 = ((-c0) + 1); c1 < n; c1 += 1) {
      table[(-c0)][c1] = ((table[(-c0)][c1] >= table[(-c0)][c1 - 1]) ? table[(-c0)][c1] : table[(-c0)][c1 - 1]);
      table[(-c0)][c1] = ((table[(-c0)][c1] >= table[(-c0) + 1][c1]) ? table[(-c0)][c1] : table[(-c0) + 1][c1]);
      if (((c0 + c1) >= 2)) {
        table[(-c0)][c1] = ((table[(-c0)][c1] >= (table[(-c0) + 1][c1 - 1] + (((seq[(-c0)] + seq[c1]) == 3) ? 1 : 0))) ? table[(-c0)][c1] : (table[(-c0) + 1][c1 - 1] + (((seq[(-c0)] + seq[c1]) == 3) ? 1 : 0)));
      } else {
        table[(-c0)][((-c0) + 1)] = ((table[(-c0)][((-c0) + 1)] >= table[(-c0) + 1][((-c0) + 1) - 1]) ? table[(-c0)][((-c0) + 1)] : table[(-c0) + 1][((-c0) + 1) - 1]);
      }
      if ((((-c0) + 1)) < c1) {
        int table_acc;
        {
          const int i = (-c0);
          const int j = c1;
          table_acc = table[i][j];
        }
        #pragma omp simd reduction(max:table_acc)
        for (int c2 = ((-c0) + 1); c2 < c1; c2 += 1) {
          {
            const int i = (-c0);
            const int j = c1;
            const int k = c2;
            table_acc = ((table_acc >= (table[k + 1][j] + table[i][k])) ? table_acc : (table[k + 1][j] + table[i][k]));  /* table[i][j] = max_score(table[i][j], table[k+1][j] + table[i][k]); */
          }
        }
        {
          const int i = (-c0);
          const int j = c1;
          table[i][j] = table_acc;
        }
      }
    }
  }
}
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
