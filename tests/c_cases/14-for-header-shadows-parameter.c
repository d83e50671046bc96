/* polyopt opt regression (hostile user, C block scopes): for (int i ...) shadows the parameter i, read after the loop (was refused). */
#include <stdio.h>
#define N 6
static void kern(int n, int i, double A[N], double B[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 2.0 * A[i];
  B[0] = i;
#pragma endscop
}
int main(void){
  double A[N] = {1,2,3,4,5,6}, B[N] = {0};
  kern(N, 4, A, B);
  for (int i=0;i<N;i++) printf("%a %a\n", A[i], B[i]);
  return 0;
}
