/* polyopt opt regression (hostile user, C block scopes): a loop body's double i shadows the function's int i, another loop's iterator (was refused). */
#include <stdio.h>
#define N 4
static void kern(int n, double A[N], double B[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2.0 * A[i];
  for (j = 0; j < n; j++) {
    double i = B[j];
    B[j] = i * i;
  }
#pragma endscop
}
int main(void){
  double A[N] = {1, 2, 3, 4}, B[N] = {1, 2, 3, 4};
  kern(N, A, B);
  for (int i=0;i<N;i++) printf("%a %a\n", A[i], B[i]);
  return 0;
}
