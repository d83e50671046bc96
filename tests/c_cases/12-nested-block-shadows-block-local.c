/* polyopt opt regression (hostile user, C block scopes): a nested block's double t shadows its loop body's int t. */
#include <stdio.h>
#define N 4
static void kern(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    int t = 7;
    {
      double t = A[i] * 0.5;
      B[i] = t;
    }
    A[i] = t;
  }
#pragma endscop
}
int main(void){
  double A[N] = {1, 2, 3, 4}, B[N] = {0};
  kern(N, A, B);
  for (int i=0;i<N;i++) printf("%a %a\n", A[i], B[i]);
  return 0;
}
