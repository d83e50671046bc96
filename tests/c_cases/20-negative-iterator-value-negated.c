/* polyopt opt regression (hostile user, stop 33): an iterator fixed at -1 is printed as its value, so `-i` became `--1` (a decrement: not C); it is now `-(-1)`. */
#include <stdio.h>
double G[64], D[64];
long L[64];
static void kern(int n, int m)
{
  int i;
#pragma scop
  for (i = -3; i < n; i++)
    if (i == -1) {
      G[i + 5] = D[-i + m + 14] + (-i + 2 * i - 3 * -i);
      L[i + 5] = -i * m - (-i);
      D[-i] = D[-2 * i + 1] + i;
    }
#pragma endscop
}

int main(void)
{
  for (int q = 0; q < 64; q++)
    D[q] = q;
  kern(10, 3);
  printf("%.17g %ld %.17g %.17g\n", G[4], L[4], D[1], D[3]);
  return 0;
}
